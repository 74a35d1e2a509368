"""babelflow core: the typed IR, settings and safe file I/O shared by every stage.

The core imports no stage: analyzers, translators, validators and flows import it.
"""

__version__ = "0.1.0"
