"""Every test holds a core while it runs (RESOURCE_GROUPS "cores:1") or is labelled
"waits": a directory that adds tests but does not end with tw_tests_hold_cores()
(CMakeLists.txt) would leave its tests out of `make test`'s count of busy cores.
usage: hold_cores.py BUILD_DIR | --self-test"""
import json
import subprocess
import sys


def problems(tests):
    out = []
    for t in tests:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        labels = props.get("LABELS", [])
        groups = props.get("RESOURCE_GROUPS", [])
        holds = any(r.get(".type") == "cores" and r.get("slots") == 1 for g in groups for r in g.get("requirements", []))
        if "waits" in labels and groups:
            out.append("%s: labelled waits, but holds %s" % (t["name"], groups))
        elif "waits" not in labels and not holds:
            out.append("%s: holds no core and is not labelled waits (tw_tests_hold_cores() missing at the end of its directory?)" % t["name"])
    return out


def self_test():
    cores = [{"name": "RESOURCE_GROUPS", "value": [{"requirements": [{".type": "cores", "slots": 1}]}]}]
    planted = [
        {"name": "holds", "properties": cores},
        {"name": "sleeps", "properties": [{"name": "LABELS", "value": ["mp", "waits"]}]},
        {"name": "forgotten", "properties": [{"name": "LABELS", "value": ["mp"]}]},
        {"name": "both", "properties": cores + [{"name": "LABELS", "value": ["waits"]}]},
    ]
    found = sorted(p.split(":")[0] for p in problems(planted))
    if found != ["both", "forgotten"]:
        print("hold_cores self-test: expected problems with both and forgotten, got %s" % found)
        return 1
    print("hold_cores self-test: the planted faults were found")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    data = json.loads(subprocess.check_output(["ctest", "--show-only=json-v1"], cwd=argv[1]))
    found = problems(data["tests"])
    for p in found:
        print(p)
    if found:
        print("hold_cores: %d of %d tests neither hold a core nor wait" % (len(found), len(data["tests"])))
        return 1
    waits = sum("waits" in {p["name"]: p["value"] for p in t.get("properties", [])}.get("LABELS", []) for t in data["tests"])
    print("hold_cores: %d tests hold a core, %d wait" % (len(data["tests"]) - waits, waits))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
