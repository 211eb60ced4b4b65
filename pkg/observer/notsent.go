package observer

import "errors"

// NotSentError marks a request the observer refused to send on its own account: the URL
// does not parse, its scheme is not http or https, or the timeout is not positive. Such a
// refusal says nothing about the endpoint's health. Reason never quotes the URL, so it
// can be shown where credentials in a URL must not appear.
type NotSentError struct {
	Reason string
}

func (e *NotSentError) Error() string { return e.Reason }

// NotSent reports whether a result's error means the request never reached the endpoint
// because of the observer itself (see NotSentError) or its network guard, which refused
// every address the host resolved to. The reason it returns names no URL, only the cause
// (and, for the guard, the refused address). A transport failure on the way to the
// endpoint is not such an error, even if the guard also refused another of its addresses.
func NotSent(err error) (reason string, ok bool) {
	var notSent *NotSentError
	if errors.As(err, &notSent) {
		return notSent.Reason, true
	}
	var refused *RefusedError
	if errors.As(err, &refused) {
		return refused.Error(), true
	}
	return "", false
}
