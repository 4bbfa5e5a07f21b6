"""The ASGI application for uvicorn (`app.asgi:app`)."""

from app.core.affinity import pin_worker
from app.core.memory import fewer_malloc_arenas, settle
from app.main import create_app

fewer_malloc_arenas()  # before the app's threads: a worker keeps less memory (app/core/memory.py)
app = create_app()
settle()  # the app's objects out of the garbage collector's walks (app/core/memory.py)
pin_worker(app.state.settings.worker_cpus, app.state.settings.var_dir)  # when asked (app/core/affinity.py)
