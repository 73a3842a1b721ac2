"""The soak's fixed numbers: protocol versions, time bounds of a scenario and a request, the sample cap."""

from __future__ import annotations

LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSION = "2026-07-28"
MB = 1024 * 1024

SCENARIO_TIMEOUT = 30.0  # a scenario still running after this is an unexpected error (a hang)
HTTP_TIMEOUT = 15.0  # per read/write/connect of one HTTP request
STREAM_END_TIMEOUT = 5.0  # a cancelled request's stream must end this soon
MAX_SAMPLES = 40  # unexpected errors kept in full for the report (all are counted)
TRACEBACK_MARKERS = ("Traceback (most recent call last)", 'File "/')
