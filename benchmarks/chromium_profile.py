"""The browser benchmarks' main-thread profile: Chromium's sampling profiler over a run of changes,
printed as self time per function (name, file, line) per change."""


def start_profile(page):
    """Start sampling the page's main thread every 250 µs; returns the CDP session to stop."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 250})
    cdp.send("Profiler.start")
    return cdp


def print_profile(cdp, changes: int, *, what: str, unit: str, idle=("(idle)",), top: int = 25) -> None:
    """Stop the profile and print its self time per function per change (``changes`` of ``what``,
    each called a ``unit``); ``idle`` names the samples that are not busy."""
    profile = cdp.send("Profiler.stop")["profile"]
    nodes = {node["id"]: node for node in profile["nodes"]}
    self_time: dict[str, float] = {}
    for sample, delta in zip(profile["samples"], profile["timeDeltas"][1:] + [0]):
        frame = nodes[sample]["callFrame"]
        where = frame["url"].rsplit("/", 1)[-1].split("?")[0]
        key = (
            f"{frame['functionName'] or '(anonymous)'}  {where}:{frame['lineNumber'] + 1}"
            if where
            else frame["functionName"]
        )
        self_time[key] = self_time.get(key, 0.0) + delta / 1000
    busy = sum(v for k, v in self_time.items() if k not in idle)
    print(f"\nmain-thread profile over {changes} {what}: busy {busy / changes:.1f} ms per {unit}")
    for key, ms in sorted(self_time.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {ms / changes:7.2f} ms/{unit}  {key}")
    cdp.detach()
