// Package schedule is the scheduling engine the prober and the capacity poller run on: one
// heap of due homes behind one timer, each group's homes on the group's slot of its period
// (Offset, FirstDue, NextDue, Resume), dispatch under an in-flight cap shared fairly
// between tenants and their groups, announcements coalesced to one a round, and a
// k8s.io/utils/clock clock so that tests drive it exactly. A policy (see Policy) says what a home's work is, how its answer
// is read and what is announced; the engine never sends anything itself.
package schedule
