"""Page segmentation shared by extractors and learned models: text blocks, the collapsed DOM, div/table segments and comment/related sections."""
