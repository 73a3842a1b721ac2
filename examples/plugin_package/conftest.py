"""Lets ``pytest`` import ``mcptrio_notes`` from a checkout even before ``pip install -e .``:
pytest puts the directory of a conftest.py that is not in a package on ``sys.path``."""
