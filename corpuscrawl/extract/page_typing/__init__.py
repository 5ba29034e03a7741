"""Page typing: the page-type classifier, its features, and the listing verdict built on it."""
