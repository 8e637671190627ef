"""Loading and validating cards: load (parse_card, load_cards), schema, model, seeds, releases."""
