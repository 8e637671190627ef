"""The mutation operators: every site in a snippet's code where one plausible slip can be made, and the slip.

Operators: arithmetic (`+` -> `-`, ...), boolean (`&` <-> `|`, `^` -> `|`, `and` <-> `or`),
comparison (negated), unary (`-x`, `not x`, `~m`, `np.logical_not(m)` dropped), constant (perturbed),
function (log/log2, sum/mean, any/all, intersection/union, ...), axis (moved), index (an index, a
slice bound or a range bound shifted by one), slice (`x[1:]` <-> `x[:-1]`, `x[:k]` <-> `x[-k:]`) and
arguments (`f(a, b)` -> `f(b, a)`).

Each site is (operator, start byte, end byte, replacement): the exact source bytes to replace, so
a mutant is the snippet with that span swapped and nothing else re-formatted. eqcards.mutation
keeps the sites inside the formula regions and orders them.
"""

from __future__ import annotations

import ast
import importlib
import re
import types

ARITHMETIC = {ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.Mult: ("*", "/"), ast.Div: ("/", "*"),
              ast.FloorDiv: ("//", "/"), ast.Pow: ("**", "*"), ast.Mod: ("%", "//"),
              ast.MatMult: ("@", "*")}
# Set and boolean-mask operators. `a ^ b` (symmetric difference, exclusive or) becomes `a | b`: the
# slip of writing "either" for "exactly one"; the two differ only where both hold, so it is the
# harder of the two replacements to catch (`&` differs wherever exactly one holds).
BOOLEAN = {ast.BitAnd: ("&", "|"), ast.BitOr: ("|", "&"), ast.BitXor: ("^", "|")}
LOGICAL = {ast.And: ("and", "or"), ast.Or: ("or", "and")}
NEGATED = {ast.Lt: ("<", ">="), ast.LtE: ("<=", ">"), ast.Gt: (">", "<="), ast.GtE: (">=", "<"),
           ast.Eq: ("==", "!="), ast.NotEq: ("!=", "=="), ast.Is: ("is", "is not"),
           ast.IsNot: (r"is\s+not", "is"), ast.In: ("in", "not in"), ast.NotIn: (r"not\s+in", "in")}
# One replacement per function: a plausible slip that changes the value.
FUNCTION_SWAPS = {
    "log": "log2", "log2": "log", "log10": "log", "log1p": "log", "exp": "expm1", "expm1": "exp",
    "exp2": "exp", "sqrt": "cbrt", "cbrt": "sqrt", "square": "sqrt", "sum": "mean", "mean": "sum",
    "nansum": "nanmean", "nanmean": "nansum", "prod": "sum", "median": "mean", "max": "min",
    "min": "max", "amax": "amin", "amin": "amax", "nanmax": "nanmin", "nanmin": "nanmax",
    "maximum": "minimum", "minimum": "maximum", "fmax": "fmin", "fmin": "fmax", "argmax": "argmin",
    "argmin": "argmax", "cumsum": "cumprod", "cumprod": "cumsum", "sin": "cos", "cos": "sin",
    "sinh": "cosh", "cosh": "sinh", "tanh": "sinh", "arcsin": "arccos", "arccos": "arcsin",
    "var": "std", "std": "var", "abs": "positive", "absolute": "positive", "floor": "ceil",
    "ceil": "floor", "erf": "erfc", "erfc": "erf", "logaddexp": "logaddexp2",
    "logaddexp2": "logaddexp", "xlogy": "xlog1py", "xlog1py": "xlogy", "gammaln": "gamma",
    # sets and boolean masks
    "any": "all", "all": "any", "logical_and": "logical_or", "logical_or": "logical_and",
    "logical_xor": "logical_or", "bitwise_and": "bitwise_or", "bitwise_or": "bitwise_and",
    "bitwise_xor": "bitwise_or", "intersect1d": "union1d", "union1d": "intersect1d",
    "setxor1d": "union1d",
}
# Methods of Python's set (and frozenset), swapped on any object: no other common type has them.
SET_METHOD_SWAPS = {"intersection": "union", "union": "intersection", "symmetric_difference": "union",
                    "issubset": "issuperset", "issuperset": "issubset"}
DROPPED_CALLS = {"logical_not"}  # np.logical_not(m) -> (m), as `~m` -> `m`
CONSTANT_SWAPS = {"pi": "e", "e": "pi"}  # np.pi, math.e, ...
BUILTIN_SWAPS = {"max": "min", "min": "max", "abs": "", "any": "all", "all": "any"}  # abs(x) -> (x)
RANGE_CALLS = {"range", "arange"}
MODULE_ROOTS = {"numpy", "scipy", "math", "cmath"}
# Two-argument calls whose arguments are not swapped (by the function's own name, whatever module).
# Symmetric for real inputs of any shape (elementwise operations, set operations, distances,
# correlations), so the swap could never change the result. np.dot and np.inner are swapped: they
# are symmetric only for two vectors, and for a matrix the swap (x A for A x) is the slip to catch;
# np.vdot flattens both arguments and is symmetric for real input, so it is not. rng.beta(a, b)
# and np.cov(x, y) are swapped too: their results change.
SYMMETRIC_CALLS = {
    "add", "multiply", "maximum", "minimum", "fmax", "fmin", "max", "min", "hypot", "logaddexp",
    "logaddexp2", "gcd", "lcm", "equal", "not_equal", "isclose", "allclose", "array_equal",
    "array_equiv", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
    "bitwise_xor", "union1d", "intersect1d", "setxor1d", "convolve", "vdot", "betaln",
    "dist", "euclidean", "sqeuclidean", "cityblock", "chebyshev", "cosine", "jensenshannon",
    "hamming", "braycurtis", "canberra", "correlation", "corrcoef", "pearsonr",
    "spearmanr", "kendalltau", "wasserstein_distance",
}
# ... and those whose two arguments are of different kinds (a type and a value, a function and its
# data, a shape and a fill value), where the swap is a type error rather than a slip.
UNORDERED_KINDS = {
    "isinstance", "issubclass", "getattr", "hasattr", "setattr", "delattr", "map", "filter",
    "reduce", "partial", "full", "full_like", "fill_diagonal", "broadcast_to", "tile", "repeat",
    "take_along_axis", "put_along_axis", "heappush", "heappushpop", "setdefault", "get", "split",
    "array_split", "round", "around", "astype", "format", "print", "enumerate", "insert",
    "startswith", "endswith", "combinations", "combinations_with_replacement", "permutations",
    "matrix_power", "percentile", "quantile", "nanpercentile", "nanquantile", "fft", "ifft", "rfft",
    "irfft", "hfft", "ihfft",
}
OPERATOR_ORDER = ("arithmetic", "boolean", "comparison", "unary", "constant", "function", "axis",
                  "index", "slice", "arguments")


def find_sites(data: bytes, tree: ast.AST) -> list[tuple[str, int, int, str]]:
    """Every mutation site of a parsed module (data: its UTF-8 source), in no particular order."""
    sites = _Sites(data, _module_aliases(tree))
    sites.visit(tree)
    return sites.found


def line_starts(data: bytes) -> list[int]:
    starts = [0]
    for i, byte in enumerate(data):
        if byte == 0x0A:
            starts.append(i + 1)
    return starts


def _module_aliases(tree: ast.AST) -> dict[str, str]:
    """Names bound to numpy, scipy or math modules by the snippet's imports."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in MODULE_ROOTS:
                    if alias.asname:
                        aliases[alias.asname] = alias.name
                    else:
                        aliases[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in MODULE_ROOTS:
                for alias in node.names:
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _format_number(value: float) -> str:
    text = f"{value:.12g}"
    return text if any(c in text for c in ".enEN") else text + ".0"


def _perturbed(value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        return str(value + 1)
    if value == 0:
        return "1.0"
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return _format_number(value * 1.01)


def _is_literal(node: ast.AST) -> bool:
    """A number, string, bytes, None or bool (signed or not), an f-string, a lambda, or a tuple,
    list, set or dict display."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, (ast.Constant, ast.JoinedStr, ast.Lambda, ast.Tuple, ast.List, ast.Set,
                             ast.Dict))


def _is_number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and _perturbed(node.value) is not None


class _Sites(ast.NodeVisitor):
    """Collects (operator, start byte, end byte, replacement) for every mutation site."""

    def __init__(self, data: bytes, aliases: dict[str, str]) -> None:
        self.data = data
        self.starts = line_starts(data)
        self.aliases = aliases
        self.found: list[tuple[str, int, int, str]] = []
        self.modules: dict[str, types.ModuleType | None] = {}

    # positions -----------------------------------------------------------------------------
    def begin(self, node: ast.AST) -> int:
        return self.starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]

    def finish(self, node: ast.AST) -> int:
        return self.starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]

    def token_between(self, lo: int, hi: int, pattern: str) -> tuple[int, int] | None:
        """The operator matching `pattern` in the bytes between two operands (comments blanked)."""
        gap = re.sub(rb"#[^\n]*", lambda m: b" " * len(m.group()), self.data[lo:hi])
        word = pattern[0].isalpha()
        regex = (rf"(?<![\w]){pattern}(?![\w])" if word else rf"(?<![-+*/%@<>=!]){re.escape(pattern)}"
                 r"(?![-+*/%@<>=])")
        match = re.search(regex.encode(), gap)
        return (lo + match.start(), lo + match.end()) if match else None

    def add(self, operator: str, start: int, end: int, replacement: str) -> None:
        self.found.append((operator, start, end, replacement))

    def shift(self, node: ast.AST) -> None:
        """An index or bound `e` becomes `e + 1`."""
        start, end = self.begin(node), self.finish(node)
        text = self.data[start:end].decode("utf-8")
        atomic = isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Constant))
        self.add("index", start, end, f"{text} + 1" if atomic else f"({text}) + 1")

    # what is never mutated -------------------------------------------------------------------
    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        return  # printed text, not the formula

    def visit_arg(self, node: ast.arg) -> None:
        return  # annotations

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        for decorator in node.decorator_list:
            self.visit(decorator)
        for statement in node.body:
            self.visit(statement)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    # operators ------------------------------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> None:
        for operator, table in (("arithmetic", ARITHMETIC), ("boolean", BOOLEAN)):
            if type(node.op) in table:
                old, new = table[type(node.op)]
                if span := self.token_between(self.finish(node.left), self.begin(node.right), old):
                    self.add(operator, *span, new)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        for operator, table in (("arithmetic", ARITHMETIC), ("boolean", BOOLEAN)):
            if type(node.op) in table:
                old, new = table[type(node.op)]
                if span := self.token_between(self.finish(node.target), self.begin(node.value), old + "="):
                    self.add(operator, *span, new + "=")
        self.visit(node.value)
        if not isinstance(node.target, ast.Name):
            self.visit(node.target)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        """`a and b` <-> `a or b`, each operator of a chain on its own."""
        old, new = LOGICAL[type(node.op)]
        for left, right in zip(node.values, node.values[1:], strict=False):
            if span := self.token_between(self.finish(left), self.begin(right), old):
                self.add("boolean", *span, new)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        previous = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            old, new = NEGATED[type(op)]
            if span := self.token_between(self.finish(previous), self.begin(right), old):
                self.add("comparison", *span, new)
            previous = right
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        patterns = {ast.USub: "-", ast.Not: "not", ast.Invert: "~"}
        if type(node.op) in patterns:
            span = self.token_between(self.begin(node), self.begin(node.operand), patterns[type(node.op)])
            if span:
                start, end = span
                if type(node.op) is ast.Not and self.data[end:end + 1] == b" ":
                    end += 1
                self.add("unary", start, end, "")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if (new := _perturbed(node.value)) is not None:
            self.add("constant", self.begin(node), self.finish(node), new)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in CONSTANT_SWAPS and isinstance(node.ctx, ast.Load):
            module = self.module(node.value)
            new = CONSTANT_SWAPS[node.attr]
            if module is not None and hasattr(module, new):
                end = self.finish(node)
                self.add("function", end - len(node.attr.encode()), end, new)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "print":
            return
        if isinstance(func, ast.Attribute) and func.attr in FUNCTION_SWAPS:
            new = FUNCTION_SWAPS[func.attr]
            module = self.module(func.value)
            ok = (hasattr(module, new) if module is not None
                  else func.attr in _ARRAY_METHODS and new in _ARRAY_METHODS)
            if ok:
                end = self.finish(func)
                self.add("function", end - len(func.attr.encode()), end, new)
        elif (isinstance(func, ast.Attribute) and func.attr in SET_METHOD_SWAPS
              and self.module(func.value) is None):
            end = self.finish(func)
            self.add("function", end - len(func.attr.encode()), end, SET_METHOD_SWAPS[func.attr])
        elif isinstance(func, ast.Name) and func.id in BUILTIN_SWAPS and func.id not in self.aliases:
            self.add("function", self.begin(func), self.finish(func), BUILTIN_SWAPS[func.id])
        if (isinstance(func, ast.Attribute) and func.attr in DROPPED_CALLS
                and hasattr(self.module(func.value), func.attr)):
            self.add("unary", self.begin(func), self.finish(func), "")  # np.logical_not(m) -> (m)
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        self.swap_arguments(node, name)
        if name in RANGE_CALLS:
            for arg in node.args[:2]:
                if not _is_number(arg) and not isinstance(arg, ast.Starred):
                    self.shift(arg)
        self.visit(func)
        for arg in node.args:
            self.visit(arg)
        for keyword in node.keywords:
            if keyword.arg == "axis":
                zero = isinstance(keyword.value, ast.Constant) and keyword.value.value == 0
                self.add("axis", self.begin(keyword.value), self.finish(keyword.value), "-1" if zero else "0")
            else:
                self.visit(keyword.value)

    def swap_arguments(self, node: ast.Call, name: str | None) -> None:
        """`f(a, b)` -> `f(b, a)`: a call with exactly two positional arguments (keywords may
        follow), unless the function is symmetric or takes two different kinds of argument, an
        argument is a literal (a number, a string, a tuple or list display: the swap is a type
        error, not a slip) or the two read the same."""
        if len(node.args) != 2 or name is None or name in SYMMETRIC_CALLS or name in UNORDERED_KINDS:
            return
        first, second = node.args
        if any(_is_literal(arg) or isinstance(arg, ast.Starred) for arg in node.args):
            return
        a, b = (self.begin(first), self.finish(first)), (self.begin(second), self.finish(second))
        text_a, text_b = self.data[a[0]:a[1]], self.data[b[0]:b[1]]
        if text_a == text_b:
            return
        between = self.data[a[1]:b[0]]
        self.add("arguments", a[0], b[1], (text_b + between + text_a).decode("utf-8"))

    def mirror_slice(self, part: ast.Slice) -> None:
        """A slice with one literal bound keeps or drops k items at the other end instead:
        `x[k:]` <-> `x[:-k]` (drop the first k / the last k), `x[:k]` <-> `x[-k:]` (the first k /
        the last k), for an int literal k >= 1 and no step."""
        if part.step is not None or (part.lower is None) == (part.upper is None):
            return
        bound = part.lower if part.lower is not None else part.upper
        negative = isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub)
        literal = bound.operand if negative else bound  # type: ignore[union-attr]
        if not (isinstance(literal, ast.Constant) and type(literal.value) is int and literal.value >= 1):
            return
        k = self.data[self.begin(literal):self.finish(literal)].decode("utf-8")
        other = k if negative else f"-{k}"
        new = f":{other}" if part.lower is not None else f"{other}:"
        self.add("slice", self.begin(part), self.finish(part), new)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        index = node.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        for part in parts:
            if isinstance(part, ast.Slice):
                self.mirror_slice(part)
            bounds = [part.lower, part.upper] if isinstance(part, ast.Slice) else [part]
            for bound in bounds:
                if bound is None or _is_number(bound) or isinstance(bound, (ast.Starred, ast.Slice)):
                    continue
                if isinstance(bound, ast.Constant):  # None, Ellipsis, a string key
                    continue
                self.shift(bound)
        self.generic_visit(node)

    def module(self, node: ast.AST) -> types.ModuleType | None:
        """The numpy/scipy/math module an expression like `np` or `np.linalg` names, if any."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.insert(0, node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        dotted = ".".join([self.aliases[node.id], *parts])
        if dotted not in self.modules:
            self.modules[dotted] = _import(dotted)
        return self.modules[dotted]


def _import(dotted: str) -> types.ModuleType | None:
    try:
        return importlib.import_module(dotted)
    except ImportError:
        head, _, attr = dotted.rpartition(".")
        if not head:
            return None
        parent = _import(head)
        value = getattr(parent, attr, None) if parent is not None else None
        return value if isinstance(value, types.ModuleType) else None


def _array_methods() -> frozenset[str]:
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a dependency
        return frozenset()
    return frozenset(dir(np.ndarray))


_ARRAY_METHODS = _array_methods()
