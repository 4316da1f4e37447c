"""For course authors: the bilingual masters and the build (never mounted in a grading sandbox)."""
