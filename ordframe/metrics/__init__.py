"""The built-in metrics, one module per family; each is an ordinary ordframe plugin."""
