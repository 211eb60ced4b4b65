// Package docs checks the documentation against the code it describes: every chart value
// and every manager flag has a line in docs/reference/settings.md (and every line there names
// one that exists), and every relative link in README.md, CHANGELOG.md and docs/ points at a
// file, and a heading, that exists. A page that falls behind a renamed key or a moved file
// fails here instead of misleading a reader.
package docs
