// Package docs checks the documentation against the code it describes: every chart value
// and every manager flag has a line in docs/reference/settings.md (and every line there names
// one that exists); every relative link in README.md, CHANGELOG.md and docs/ points at a
// file, and a heading, that exists, and every repository path a page names in a code span
// exists; and every event, condition, weight and exclusion reason,
// metric and metric label a page names is one the code defines, while docs/reference lists
// every one the code defines (events-and-metrics.md the events with their types and the
// metrics with their labels, conditions.md the rest). The names are read from the code
// itself: api/v1beta1's constants, the reasons of every Eventf call, and the descriptors of
// the collectors the manager registers. A page that falls behind a renamed key, reason or
// metric or a moved file fails here instead of misleading a reader.
package docs
