"""For course authors: the bilingual masters, the build (`python -m authoring build`) and the
course website (`python -m authoring site`). Never mounted in a grading sandbox."""
