"""The command line the tree's checkers share (layering.py, doc_links.py): with
--self-test, the checker's planted-fault test; else the check of the tree at ROOT
(default: this folder's parent), a line per problem and a summary, exit 1 on any."""
import os


def run(argv, check, self_test, name, problems_are, clean):
    if "--self-test" in argv:
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print("%s: %d %s" % (name, len(problems), problems_are))
        return 1
    print("%s: %s" % (name, clean))
    return 0
