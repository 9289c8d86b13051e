"""Real-browser fixtures: a private JupyterLab server and headless Debian Chromium (Playwright, sync API).

What this sets up (docs/browser-testing.md says why each step is the way it is):

* ``jupyter_lab`` (session): JupyterLab on a free port picked at run time, ``port_retries=0`` (a busy
  port must fail, not move the server), no token/password, its own JUPYTER_CONFIG_DIR /
  JUPYTER_RUNTIME_DIR, root_dir = a temporary copy of ``notebooks/`` so tests never touch the repo's
  notebooks. Stopped through its own process handle.
* ``browser`` (session): /usr/bin/chromium driven by Playwright. A missing binary FAILS the tests (CI
  installs chromium); it is never a skip.
* ``console_errors`` / ``lab_page``: a page whose ``pageerror`` and console errors fail the test,
  except the named benign noise in ``BENIGN_CONSOLE``.

Artifacts (screenshots, canvas snapshots, exported PNGs, server log, console log; on failure the page's
HTML and a Playwright trace) go to ``<repo>/test-artifacts/browser/run-*/`` (git-ignored; ``latest``
links to the newest run).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from labdriver import LabPage
from labdriver import safe_name as _safe_name

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
BUNDLE = REPO / "campaign_widget" / "static" / "widget.js"
ARTIFACTS = REPO / "test-artifacts" / "browser"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 1000}
# A high-DPI page: the contract says the canvas backing store is CSS size x devicePixelRatio; dpr 2
# makes a view that forgets it fail the pixel tests instead of passing by accident at dpr 1.
DEVICE_SCALE_FACTOR = 2
SERVER_START_TIMEOUT = 60.0

# Console messages of type "error" that are NOT a failure: (regex on the text, reason) pairs.
# Empty on purpose: a clean run of JupyterLab 4.6 + this widget logs no console errors at all (not even
# a favicon 404). Add an entry only for noise you can name, with the reason; anything not matched
# here fails the test.
BENIGN_CONSOLE: list[tuple[str, str]] = []


def pytest_collection_modifyitems(items):
    """Every test in this folder drives the real browser: mark it ``browser`` (registered in pyproject)."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Remember each phase's report on the item, so fixtures can tell whether the test failed."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


def _test_failed(request) -> bool:
    rep = getattr(request.node, "rep_call", None)
    setup = getattr(request.node, "rep_setup", None)
    return bool((rep is not None and rep.failed) or (setup is not None and setup.failed))


# -- preconditions: fail loudly, never skip ------------------------------------------------------


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _check_preconditions(root_dir: Path, env: dict) -> None:
    if not BUNDLE.exists():
        pytest.fail(
            f"the widget's JS bundle {BUNDLE} is missing: run `npm install && npm run build` in {REPO} "
            "(the browser tests need the real view)",
            pytrace=False,
        )
    # The kernel is started by the server with the server's interpreter (jupyter_client maps argv[0]
    # "python" to sys.executable), the server's environment and the notebook's folder as cwd: ask that
    # same interpreter, the same way, which campaign_widget it imports.
    probe = subprocess.run(
        [sys.executable, "-c", "import campaign_widget; print(campaign_widget.__file__)"],
        cwd=root_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:
        pytest.fail(
            "the notebook kernel cannot import campaign_widget; install the package under test with "
            f"`pip install -e {REPO} --no-build-isolation`.\n{probe.stderr[-2000:]}",
            pytrace=False,
        )
    imported = Path(probe.stdout.strip()).resolve()
    if REPO not in imported.parents:
        pytest.fail(
            f"the kernel would import campaign_widget from {imported}, not from the repo under test "
            f"{REPO}: `pip install -e {REPO} --no-build-isolation`",
            pytrace=False,
        )


# -- the JupyterLab server -------------------------------------------------------------------------


@dataclass
class LabServer:
    url: str
    root_dir: Path
    work_dir: Path  # scratch space the kernel can write to (e.g. PNG exports)
    process: subprocess.Popen
    log_path: Path

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no server log)"


def _write_lab_settings(config_dir: Path) -> None:
    """User settings of this private Lab: no news / update-check prompts (they'd need the network
    and their toast covers part of the page)."""
    settings = config_dir / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}', encoding="utf-8"
    )


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """This run's folder, ``test-artifacts/browser/run-<time>-<pid>/`` (``latest`` links to it).

    One folder per run: two runs in one checkout (it happens when several people test at once)
    neither mix nor delete each other's files. The five newest runs are kept.
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    run = ARTIFACTS / f"run-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    run.mkdir()
    for old in sorted(ARTIFACTS.glob("run-*"), key=lambda p: p.stat().st_mtime)[:-5]:
        shutil.rmtree(old, ignore_errors=True)
    latest = ARTIFACTS / "latest"
    try:
        tmp = ARTIFACTS / f".latest-{os.getpid()}"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(run.name)
        tmp.replace(latest)
    except OSError:
        pass  # a convenience only
    return run


@pytest.fixture(scope="session")
def jupyter_lab(tmp_path_factory, artifacts_dir):
    base = tmp_path_factory.mktemp("lab")
    root_dir = base / "notebooks"
    shutil.copytree(NOTEBOOKS, root_dir, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    work_dir = base / "work"
    work_dir.mkdir()
    config_dir, runtime_dir = base / "config", base / "runtime"
    config_dir.mkdir()
    runtime_dir.mkdir()
    _write_lab_settings(config_dir)
    env = dict(
        os.environ, JUPYTER_CONFIG_DIR=str(config_dir), JUPYTER_RUNTIME_DIR=str(runtime_dir), PYTHONUNBUFFERED="1"
    )
    env.pop("JUPYTER_TOKEN", None)
    _check_preconditions(root_dir, env)
    # The server's root is a copy outside the repo, so nothing the tests do (adding cells, autosave)
    # can reach the repo's notebooks.
    assert REPO not in root_dir.resolve().parents, root_dir

    log_path = artifacts_dir / "jupyterlab-server.log"
    server = None
    try:
        # A port found free can be taken before the server binds it; with port_retries=0 the server
        # then exits (instead of moving), and we try another port.
        for _ in range(3):
            server = _start_lab(root_dir, work_dir, base, env, log_path)
            if server is not None:
                break
        else:
            pytest.fail(f"JupyterLab could not bind a free port in 3 attempts:\n{_tail(log_path)}", pytrace=False)
        yield server
    finally:
        if server is not None:
            _stop(server.process)


def _tail(path: Path, chars: int = 4000) -> str:
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError:
        return "(no server log)"


def _start_lab(root_dir: Path, work_dir: Path, cwd: Path, env: dict, log_path: Path) -> LabServer | None:
    """Start JupyterLab and wait for /api/status; None if the port turned out to be taken."""
    port = _free_port()
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        "--ServerApp.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root_dir}",
        "--allow-root",
    ]
    with open(log_path, "w", encoding="utf-8") as log:  # the child keeps its own handle
        # Own process group, so that teardown can end whatever it leaves behind, and only that.
        process = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    server = LabServer(
        url=f"http://127.0.0.1:{port}", root_dir=root_dir, work_dir=work_dir, process=process, log_path=log_path
    )
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while True:
        if process.poll() is not None:
            log = server.log_tail()
            if "already in use" in log or "Address already" in log:
                return None
            pytest.fail(
                f"JupyterLab exited with code {process.returncode} while starting (port {port}):\n{log}", pytrace=False
            )
        try:
            with urllib.request.urlopen(f"{server.url}/api/status", timeout=2) as response:
                if response.status == 200:
                    return server
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            pass
        if time.monotonic() > deadline:
            _stop(process)
            pytest.fail(
                f"JupyterLab did not answer /api/status within {SERVER_START_TIMEOUT:g} s "
                f"(port {port}):\n{server.log_tail()}",
                pytrace=False,
            )
        time.sleep(0.2)


def _stop(process: subprocess.Popen) -> None:
    """Stop the server by its own handle. On SIGTERM it shuts its kernels down itself (they run in
    sessions of their own, see jupyter_client's launcher); then end whatever is left in its group."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    try:  # anything else it started in its process group and left behind
        os.killpg(process.pid, 9)
    except (ProcessLookupError, PermissionError):
        pass


# -- the browser -------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the browser tests need Debian's chromium (`apt-get install -y "
            "chromium`); never `playwright install` here. This is a failure, not a skip.",
            pytrace=False,
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        pytest.fail(f"Python playwright is not installed ({error}): pip install playwright", pytrace=False)
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


@pytest.fixture(scope="session")
def open_lab_page(browser, jupyter_lab, artifacts_dir):
    """``open_lab_page(name) -> LabPage``: a new browser context + page with this suite's settings
    (viewport, devicePixelRatio, downloads, trace, error collection with ``BENIGN_CONSOLE``).
    The caller closes it with ``close(failed)``; use it for pages shared by a module's tests."""

    def factory(name: str) -> LabPage:
        return LabPage(
            browser,
            _safe_name(name),
            artifacts_dir,
            viewport=VIEWPORT,
            device_scale_factor=DEVICE_SCALE_FACTOR,
            benign=BENIGN_CONSOLE,
        )

    return factory


@pytest.fixture
def lab_page(open_lab_page, request):
    """A fresh page on the private Lab for one test; any page or console error fails the test."""
    lab = open_lab_page(request.node.name)
    failed = True
    try:
        yield lab
        failed = _test_failed(request)
        if failed:
            lab.save_failure("end")
        lab.errors.assert_clean(when=f"during {request.node.name}")
        failed = False
    finally:
        close_failed = failed or _test_failed(request)
        lab.close(close_failed)
