"""`make serve` (serve): the site kept in memory (livesite), rebuilt per saved file (livebuild), devserver."""
