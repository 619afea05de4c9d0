"""The plugin's version, in a module of its own so the log writer reads it without loading the plugin."""

__version__ = "0.1.0"
