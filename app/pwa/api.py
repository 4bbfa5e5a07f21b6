from fastapi import APIRouter

router = APIRouter(tags=["pwa"])
