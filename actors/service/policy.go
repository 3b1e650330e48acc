package service

import (
	"fmt"
	"time"
)

// RestartPolicy says when a failed world is started again, as an
// Erlang/OTP supervisor's intensity and period do: at most MaxRestarts
// restarts within any Window; one more failure stops the service with
// ErrRestartsExhausted. Before the k-th restart within the window the
// supervisor waits Backoff·2^(k-1), at most MaxBackoff.
type RestartPolicy struct {
	MaxRestarts int           // 0: never restart; the first failure stops the service
	Window      time.Duration // the period MaxRestarts counts over
	Backoff     time.Duration // the wait before the first restart
	MaxBackoff  time.Duration // the longest wait (0: Backoff)
}

// DefaultRestartPolicy is the policy of a service started without the
// Restart option: three restarts a minute, from 100 ms to 5 s apart.
var DefaultRestartPolicy = RestartPolicy{MaxRestarts: 3, Window: time.Minute, Backoff: 100 * time.Millisecond, MaxBackoff: 5 * time.Second}

func (p RestartPolicy) check() error {
	if p.MaxRestarts < 0 || p.Window < 0 || p.Backoff < 0 || p.MaxBackoff < 0 {
		return fmt.Errorf("%w: RestartPolicy with a negative field: %+v", ErrBadArg, p)
	}
	if p.MaxRestarts > 0 && p.Window == 0 {
		return fmt.Errorf("%w: RestartPolicy.Window is 0: the restarts have no period to count over", ErrBadArg)
	}
	return nil
}

// admit records a failure at now given the times of earlier restarts,
// and returns the restarts still within the window (now included) and the
// wait before this restart; ok is false when the policy allows no more.
func (p RestartPolicy) admit(past []time.Time, now time.Time) (recent []time.Time, wait time.Duration, ok bool) {
	for _, t := range past {
		if now.Sub(t) < p.Window {
			recent = append(recent, t)
		}
	}
	if len(recent) >= p.MaxRestarts {
		return recent, 0, false
	}
	recent = append(recent, now)
	wait = p.Backoff
	for range len(recent) - 1 {
		wait *= 2
		if wait >= max(p.MaxBackoff, p.Backoff) {
			break
		}
	}
	return recent, min(wait, max(p.MaxBackoff, p.Backoff)), true
}
