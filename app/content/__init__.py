"""Lessons, questions and exercises as files: validation, rendering and syncing."""

from app.content.loader import Catalog, ContentError, Problem, load_catalog
from app.content.sync import sync_catalog

__all__ = ["Catalog", "ContentError", "Problem", "load_catalog", "sync_catalog"]
