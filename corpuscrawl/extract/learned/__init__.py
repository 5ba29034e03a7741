"""Learned extractors, prediction only: features, the shipped models loaded by name, and the extractors that apply them (training lives in :mod:`corpuscrawl.learn`)."""
