from tests.support.catalogs import catalogs  # noqa: F401 (fixture)
