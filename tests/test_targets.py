"""The build targets the tests that ctest selects run: every program of the build
directory on their command lines (ninja's name for it, a path in the build), so that
a build for a few labels (the ThreadSanitizer pass) makes only what they need.
Prints "all" when the build is not Ninja's or a program is not one it makes.
usage: test_targets.py BUILD_DIR [CTEST SELECTION ARGS...]   e.g. -L "ring|thread" """
import json
import os
import re
import subprocess
import sys


def main(argv):
    build = os.path.abspath(argv[1])
    if not os.path.exists(os.path.join(build, "build.ninja")):
        print("all")
        return 0
    data = json.loads(subprocess.check_output(["ctest", "--show-only=json-v1"] + argv[2:], cwd=build))
    selected = {test["name"] for test in data["tests"]}
    # ctest names a test's command only once its program exists: before the build,
    # the command lines come from the CTestTestfile.cmake files
    paths = set()
    for top, dirs, files in os.walk(build):
        dirs[:] = [d for d in dirs if not os.path.exists(os.path.join(top, d, "CMakeCache.txt"))]
        if "CTestTestfile.cmake" not in files:
            continue
        with open(os.path.join(top, "CTestTestfile.cmake")) as f:
            for line in f:
                m = re.match(r"add_test\(\[=\[(.*?)\]=\] (.*)\)$", line.strip())
                if not m or m.group(1) not in selected:
                    continue
                for word in re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2)):
                    if word.startswith(build + os.sep):
                        paths.add(os.path.relpath(word, build))
    if not paths:
        print("all")
        return 0
    query = subprocess.run(["ninja", "-C", build, "-t", "query"] + sorted(paths), capture_output=True, text=True)
    print(" ".join(sorted(paths)) if query.returncode == 0 else "all")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
