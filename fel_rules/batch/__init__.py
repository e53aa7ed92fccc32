"""Batch processing: a folder of invoices → reports, PDFs, cross-document checks and manifest.json."""

from .errors import BatchCancelled, BatchError
from .manifest import MANIFEST_VERSION, Entry, Manifest, manifest_json_schema
from .options import BatchOptions, BatchResult
from .runner import run_batch
from .worker import output_paths

__all__ = [
    "MANIFEST_VERSION", "BatchCancelled", "BatchError", "BatchOptions", "BatchResult", "Entry", "Manifest",
    "manifest_json_schema", "output_paths", "run_batch",
]
