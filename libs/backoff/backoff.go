// Package backoff is the one wait between retries of the platform's
// background loops (the outbox relay, consumers, job workers).
package backoff

import "time"

// Wait is the wait before retry attempt n (1-based): lo doubled per
// attempt, at most hi.
func Wait(n int, lo, hi time.Duration) time.Duration {
	d := lo
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	return min(d, hi)
}
