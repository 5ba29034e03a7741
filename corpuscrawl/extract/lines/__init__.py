"""What the lines of an extracted text are: their structure (headings, list items, tables) and the page furniture every extractor drops."""
