"""Issue 37 item 1 (template rendering: bytecode cache): compiled templates are kept on disk for
the next process, checked against their source, and a cache that cannot be written is no error."""

from __future__ import annotations

import shutil

from jinja2 import FileSystemLoader

from app.core import templating
from app.core.i18n import translations

PAGE = "{% trans %}Log in{% endtrans %}: <p>{{ _('Hello, %(name)s', name=word) }}</p>"


def _env(cache, templates):
    env = templating._make_env()
    env.bytecode_cache = templating.bytecode_cache(str(cache))
    env.loader = FileSystemLoader(templates)
    return env


def _dirs(tmp_path):
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "page.html").write_text(PAGE)
    (tmp_path / "cache").mkdir()
    return tmp_path / "cache", tmp_path / "templates"


def _refuse_to_compile(*_args, **_kwargs):
    raise AssertionError("compiled again: the kept bytecode was not used")


def _draw(env, word="<Anna>") -> str:
    return env.get_template("page.html").render(translations=translations("pl"), word=word)


def test_issue37_a_template_compiled_once_is_read_back_by_the_next_process(tmp_path):
    cache, templates = _dirs(tmp_path)
    drawn = _draw(_env(cache, templates))
    kept = [p.name for p in cache.iterdir()]
    assert len(kept) == 1 and kept[0].startswith("hideout-") and kept[0].endswith(".cache"), kept

    second = _env(cache, templates)  # another process: nothing in memory, the same directory
    second.compile = _refuse_to_compile  # type: ignore[method-assign]
    assert _draw(second) == drawn
    assert "&lt;Anna&gt;" in drawn and "Log in" not in drawn  # escaped, and said in Polish


def test_issue37_a_changed_source_is_compiled_again(tmp_path):
    cache, templates = _dirs(tmp_path)
    assert "<p>" in _draw(_env(cache, templates))
    (templates / "page.html").write_text("<b>{{ word }}</b>")
    assert _draw(_env(cache, templates), "two") == "<b>two</b>"


def test_issue37_a_cache_that_cannot_be_written_still_draws_the_page(tmp_path):
    cache, templates = _dirs(tmp_path)
    env = _env(cache, templates)
    shutil.rmtree(cache)  # a temporary directory cleaned away under a running server
    assert "&lt;Anna&gt;" in _draw(env)
    assert not cache.exists()


def test_issue37_no_usable_directory_means_no_cache(monkeypatch):
    def unsafe(self):
        raise RuntimeError("Cannot determine safe temp directory.")

    monkeypatch.setattr(templating._KeptTemplates, "_get_default_cache_dir", unsafe)
    assert templating.bytecode_cache() is None


def test_issue37_the_app_keeps_its_compiled_templates():
    cache = templating.env.bytecode_cache
    assert isinstance(cache, templating._KeptTemplates)
    assert cache.pattern.startswith("hideout-") and cache.pattern.endswith("-%s.cache")
