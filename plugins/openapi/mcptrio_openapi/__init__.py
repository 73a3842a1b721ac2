"""mcptrio-openapi: an HTTP API described by an OpenAPI 3.0 or 3.1 document, served as MCP tools.

Serve it with ``mcptrio serve --plugins openapi --plugin-option openapi.spec=URL_OR_FILE`` (or a
``[plugins.openapi]`` table in the ``--config`` file), or build a Registry in code with
``from_openapi``.  Every operation is a tool unless a route map says otherwise.
"""

import mcptrio
from mcptrio import OptionError, PluginOptions

from .document import DocumentError
from .route_maps import RouteMap
from .serving import Served, from_openapi, load
from .settings import OpenApiSettings
from .upstream import upstream_headers

__all__ = [
    "DocumentError",
    "OpenApiSettings",
    "RouteMap",
    "Served",
    "from_openapi",
    "load",
    "plugin",
    "upstream_headers",
]

plugin = mcptrio.Registry("openapi")
# What a user installing the server gives (a bundle's form, a registry entry's variables): each fills its option.
plugin.user_setting(
    "spec",
    env="MCPTRIO_OPENAPI_SPEC",
    option="spec",
    title="OpenAPI document",
    description="The API's OpenAPI 3.0 or 3.1 document: a file's path or an http(s) URL",
    required=True,
)
plugin.user_setting(
    "base_url",
    env="MCPTRIO_OPENAPI_BASE_URL",
    option="base_url",
    title="API base URL",
    description="Where the API is (default: the document's first server)",
)


@plugin.configure
def configure(options: PluginOptions) -> mcptrio.Registry:
    """The registry the ``[plugins.openapi]`` options describe (one line when they or the document are wrong)."""
    settings = OpenApiSettings.from_options(options)
    try:
        return load(settings).registry
    except DocumentError as exc:
        said = str(exc)
        raise OptionError(said if said.startswith("plugins.") else f"plugins.{options.plugin}.spec: {said}") from None
