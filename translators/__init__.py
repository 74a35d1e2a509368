"""Translation backends and the text protection they rely on."""
