package main

// The image has no base and so no /etc/ssl: the manager carries the public certificate
// authorities that an HTTPS probe trusts (Mozilla's set, as packaged by the Go team). Go
// uses them only when the system has none, so a manager run outside the image keeps using
// the host's store.
import _ "golang.org/x/crypto/x509roots/fallback"
