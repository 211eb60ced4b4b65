// Command kubectl-ome is a kubectl plugin (`kubectl ome ...` once it is on PATH) for the
// routing operator: `traffic drain` and `traffic undrain` add and remove manual drains on a
// source InferenceService with a guarded patch, and `placement endpoint` shows how a
// service's TrafficMap routes it. The commands live in app/, one package per verb.
package main
