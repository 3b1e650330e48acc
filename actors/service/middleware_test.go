package service

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

type tenantKey struct{}

// tenantCarrier carries a tenant name in the context across processes.
type tenantCarrier struct{}

func (tenantCarrier) Inject(ctx context.Context) []byte {
	s, _ := ctx.Value(tenantKey{}).(string)
	return []byte(s)
}

func (tenantCarrier) Extract(ctx context.Context, b []byte) context.Context {
	return context.WithValue(ctx, tenantKey{}, string(b))
}

// Middlewares run around every call on both routes, outermost first,
// with what the call is; the caller's context values reach them and the
// actor (across processes through the Carrier); a middleware's error is
// the caller's.
func TestMiddleware(t *testing.T) {
	for _, rt := range routes {
		t.Run(rt.name, func(t *testing.T) {
			var mu sync.Mutex
			var trail []string
			var infos []CallInfo
			mark := func(name string) Middleware {
				return func(ctx context.Context, c CallInfo, next func(context.Context) error) error {
					tenant, _ := ctx.Value(tenantKey{}).(string)
					mu.Lock()
					trail = append(trail, name+":"+tenant)
					if name == "outer" {
						infos = append(infos, c)
					}
					mu.Unlock()
					if tenant == "refused" {
						return errors.New("refused by " + name)
					}
					return next(ctx)
				}
			}
			opts := append([]Option{Intercept(mark("outer")), Intercept(mark("inner")), Carry(tenantCarrier{})}, rt.opts...)
			svc, err := Start(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 4 << 20}, echo, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Stop(context.Background())
			ctx := context.WithValue(context.Background(), tenantKey{}, "acme")
			before := time.Now()
			if r, err := svc.Call(ctx, 1, req{X: 21}); err != nil || r.Y != 42 {
				t.Fatalf("Call: %+v, %v", r, err)
			}
			mu.Lock()
			got := strings.Join(trail, " ")
			info := infos[0]
			mu.Unlock()
			if got != "outer:acme inner:acme" {
				t.Errorf("the middlewares ran as %q, want outer then inner, each seeing the caller's tenant", got)
			}
			remote := rt.name == "forwarded"
			if info.PE != 1 || info.Remote != remote || info.Started.Before(before) ||
				(!remote && (info.Sent.Before(before) || info.Started.Before(info.Sent))) || (remote && !info.Sent.IsZero()) {
				t.Errorf("CallInfo %+v (call made at %v)", info, before)
			}
			_, err = svc.Call(context.WithValue(context.Background(), tenantKey{}, "refused"), 0, req{X: 1})
			if err == nil || !strings.Contains(err.Error(), "refused by outer") {
				t.Errorf("a middleware's refusal: %v", err)
			}
		})
	}
}

// Nil middlewares and carriers are the caller's mistake, refused at Start.
func TestMiddlewareBadOptions(t *testing.T) {
	for _, o := range []Option{Intercept(nil), Intercept(func(ctx context.Context, c CallInfo, next func(context.Context) error) error { return next(ctx) }, nil), Carry(nil)} {
		if _, err := Start(context.Background(), pgas.Config{Backend: "host", PEs: 1, HeapSize: 4 << 20}, echo, o); !errors.Is(err, ErrBadArg) {
			t.Errorf("Start: %v, want ErrBadArg", err)
		}
	}
}
