"""The package's version: the version of Notiflow's API it speaks (the OpenAPI schema's
`info.version`, `GET /api/schema/`), so a client and a server of one version agree."""

__version__ = "1.0.0"
