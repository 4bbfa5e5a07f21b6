"""The bare route that bench/wrk.py measures pages against: FastAPI answering a small dict."""

from fastapi import FastAPI

app = FastAPI()


@app.get("/bare")
def bare():
    return {"ok": True}
