"""Students' commands: `python -m course start ASSIGNMENT`, `python -m course lab [en|es]`."""
import sys

from course.start import main

main(sys.argv[1:])
