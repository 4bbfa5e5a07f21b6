from typing import Annotated

from fastapi import Depends, Request

from app.catalog.catalog import Catalog


def get_catalog(request: Request) -> Catalog:
    return request.app.state.catalog.get()


CatalogDep = Annotated[Catalog, Depends(get_catalog)]
