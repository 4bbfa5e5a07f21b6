"""Settings from the environment (prefix HIDEOUT_)."""
from __future__ import annotations

import secrets
from functools import lru_cache
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parents[2]

# Values people paste from tutorials; a server started with one of them would sign
# sessions with a key anybody knows.
KNOWN_KEYS = {"", "changeme", "change-me", "secret", "secret-key", "hideout", "dev", "development"}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="HIDEOUT_", extra="ignore")

    database_url: str = ""
    secret_key: str = ""
    var_dir: Path = ROOT / "var"
    # Cheap argon2 parameters for the test suite only.
    fast_hashing: bool = False
    secure_cookies: bool = False
    login_max_failures: int = 5
    login_max_failures_per_address: int = 30
    login_window_minutes: int = 15

    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        self.var_dir.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{self.var_dir / 'hideout.sqlite3'}"

    def resolved_secret_key(self) -> str:
        if self.secret_key:
            if self.secret_key.strip().lower() in KNOWN_KEYS or len(self.secret_key) < 16:
                raise SystemExit(
                    "HIDEOUT_SECRET_KEY is a known or too short value; set a long random one "
                    "or unset it to have one generated."
                )
            return self.secret_key
        self.var_dir.mkdir(parents=True, exist_ok=True)
        path = self.var_dir / "secret_key"
        if not path.exists():
            path.write_text(secrets.token_urlsafe(48))
            path.chmod(0o600)
        return path.read_text().strip()


@lru_cache
def get_settings() -> Settings:
    return Settings()
