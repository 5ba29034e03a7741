"""Page metadata: the headline/title and structured metadata (dates, authors, language)."""
