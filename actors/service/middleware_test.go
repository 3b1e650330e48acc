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

// A middleware is held to its contract: one that returns nil without
// calling next, or calls it twice, or panics, fails that call alone with
// ErrMiddleware (never a zero answer as if served, never a second Serve,
// never the PE); the service serves on. The actor's own panic under a
// middleware still fails the PE.
func TestMiddlewareContract(t *testing.T) {
	var serves sync.Map // X → times served
	counting := func(ctx context.Context, pe *pgas.PE) (Actor[req, resp], error) {
		return ActorFunc[req, resp](func(ctx context.Context, r req) (resp, error) {
			n, _ := serves.LoadOrStore(r.X, new(int64))
			*n.(*int64)++
			if r.X == panicX {
				panic("the actor's own panic")
			}
			return resp{Y: 2 * r.X}, nil
		}), nil
	}
	const (
		skip   = 1
		twice  = 2
		panics = 3
	)
	broken := func(ctx context.Context, c CallInfo, next func(context.Context) error) error {
		switch ctx.Value(tenantKey{}) {
		case "skip":
			return nil
		case "twice":
			_ = next(ctx)
			return next(ctx)
		case "panics":
			panic("an exporter's bug\nover two lines")
		}
		return next(ctx)
	}
	for _, rt := range routes {
		t.Run(rt.name, func(t *testing.T) {
			serves.Clear()
			opts := append([]Option{Intercept(broken), Carry(tenantCarrier{})}, rt.opts...)
			svc, err := Start(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 4 << 20}, counting, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Stop(context.Background())
			cases := []struct {
				tenant string
				x      int64
				serves int64 // times the actor served the call
				text   string
			}{
				{"skip", skip, 0, "returned without calling next"},
				{"twice", twice, 1, "called next a second time"},
				{"panics", panics, 0, "panicked: an exporter's bug\\nover two lines"},
			}
			for _, c := range cases {
				ctx := context.WithValue(context.Background(), tenantKey{}, c.tenant)
				r, err := svc.Call(ctx, 1, req{X: c.x})
				if !errors.Is(err, ErrMiddleware) || !strings.Contains(err.Error(), c.text) || r != (resp{}) {
					t.Errorf("%s: %+v, %v; want ErrMiddleware saying %q", c.tenant, r, err, c.text)
				}
				var got int64
				if n, ok := serves.Load(c.x); ok {
					got = *n.(*int64)
				}
				if got != c.serves {
					t.Errorf("%s: the actor served the call %d times, want %d", c.tenant, got, c.serves)
				}
			}
			// The PE serves on: no failure, no restart.
			if r, err := svc.Call(context.Background(), 1, req{X: 21}); err != nil || r.Y != 42 {
				t.Fatalf("a call after the broken middlewares: %+v, %v", r, err)
			}
			if f := svc.Stats().PEs[1].Failures; f != 0 {
				t.Errorf("PE 1 failed %d times, want 0", f)
			}
			// The actor's own panic under the middleware fails the PE.
			if _, err := svc.Call(context.Background(), 1, req{X: panicX}); err == nil || errors.Is(err, ErrMiddleware) {
				t.Errorf("the actor's panic: %v, want the PE's failure", err)
			}
		})
	}
}
