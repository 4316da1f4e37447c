"""Authors' commands; `python -m authoring COMMAND --help` says more.

    python -m authoring build           # write source/ (executed, outputs stored) and release/
    python -m authoring build --force   # the same, even over notebooks a person edited
    python -m authoring check           # fail if source/ or release/ is stale, or EN and ES differ
    python -m authoring site            # the course website, both languages, in _site/ (authoring/site.py)
    python -m authoring site --out DIR  # the same, written to DIR (-v: Sphinx says what it does)
"""
import sys
import time

from course.commands import Parser


def main(argv=None):
    parser = Parser(prog="python -m authoring", description=__doc__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")  # none: build
    build = commands.add_parser("build", help="write source/ and release/ from the masters")
    build.add_argument("--force", action="store_true",
                       help="write even over notebooks a person edited (default: refuse, naming them)")
    commands.add_parser("check", help="fail if source/ or release/ is stale, or English and Spanish differ")
    site = commands.add_parser("site", help="the course website, both languages")
    site.add_argument("--out", default=None, metavar="FOLDER", help="where to write it (default: _site/)")
    site.add_argument("-v", "--verbose", action="store_true", help="Sphinx says what it does (default: quiet)")
    arguments = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if arguments.command in (None, "build"):
        from authoring.build import build as write
        write(force=getattr(arguments, "force", False))
    elif arguments.command == "check":
        from authoring.build import stale_files
        stale = stale_files()
        if stale:
            raise SystemExit("stale, run `python -m authoring build`:\n  " + "\n  ".join(stale))
        print("source/ and release/ match the masters; English and Spanish match")
    else:
        from authoring.site import build_site
        started = time.monotonic()
        out = build_site(out=arguments.out, quiet=not arguments.verbose)
        print(f"site written to {out}/ in {time.monotonic() - started:.0f} s "
              f"(open {out / 'index.html'}, or `python -m http.server -d {out.name}`)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
