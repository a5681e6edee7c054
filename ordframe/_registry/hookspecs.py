"""The hooks a plugin may implement.

A plugin is any module or object with functions marked ``@ordframe.hookimpl``
whose names match the hook specifications below. Each specification's
docstring is the contract.
"""

import pluggy

PROJECT = "ordframe"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)
"""The decorator that marks a plugin's hook functions: ``@ordframe.hookimpl`` above ``def ordframe_metrics():``.

It is pluggy's ``HookimplMarker`` for the project ``"ordframe"``.
"""


@hookspec
def ordframe_metrics():
    """Return a list of [`ordframe.Metric`][ordframe.Metric] declarations.

    Called once per plugin when the registry is (re)built. Every metric name
    must be unique across all plugins and not one of
    ``ordframe.Metric.RESERVED_NAMES`` (ordframe's own functions and accessor methods); a kernel
    must follow the signature its ``kind`` prescribes (see [`ordframe.Metric`][ordframe.Metric]).
    If the hook of an entry-point plugin raises (anything but ``KeyboardInterrupt``),
    the plugin is skipped with a ``PluginLoadWarning`` and listed as failed.
    """
