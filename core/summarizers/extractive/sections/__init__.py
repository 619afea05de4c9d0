"""One small builder per template section, by position: each adds its candidate lines to the draft."""
