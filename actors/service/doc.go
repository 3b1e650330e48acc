// Package service runs a world of PE actors inside a long-lived Go
// program — an HTTP or gRPC server, a worker — and lets any goroutine call
// them: the shape of symchan for services, where pgas.Run is the shape of
// SPMD programs.
//
//	svc, err := service.Start(ctx, pgas.Config{Backend: "cuda"},
//		func(ctx context.Context, pe *pgas.PE) (service.Actor[Req, Resp], error) {
//			return newSolver(ctx, pe) // load kernels, allocate buffers
//		},
//		service.Logger(logger))
//	...
//	resp, err := svc.CallAny(r.Context(), req) // from an HTTP handler
//	...
//	err = svc.Stop(shutdownCtx) // on SIGTERM, after http.Server.Shutdown
//
// # Calls
//
// Each PE's actor serves one call at a time, from a bounded inbox
// (QueueDepth): its own, for Call, and one that every local PE serves, for
// CallAny (as jobs wait for a pool of workers). A call carries the caller's context to the actor, so a
// request's deadline bounds the work done for it; a caller that gives up
// leaves nothing behind. Calls to PEs of another process (the nvshmem
// backend, one PE per process) go through this process's PE and the
// world's own mailboxes and futures.
//
// # Supervision
//
// A PE fails when its actor panics or returns an error marked with
// [Fatal] (or when making the actor fails); on the nvshmem backend a
// failure in another process reaches this one. Every call pending on that
// world then fails at once with ErrPEFailed and the *pgas.PEError that
// names the PE and the cause, and the world is started again under the
// [RestartPolicy] (at most MaxRestarts within Window, with exponential
// back-off); calls made meanwhile wait for the new world up to their
// deadline. When the policy is exhausted the service stops and Err says
// why.
//
// # Observability
//
// [Service.Stats] returns per-PE counts as plain values (calls, errors,
// calls in flight and queued, rejections, failures, and the mailbox's
// messages, bytes, credit waits and receive wake-ups); package
// actors/service/promstats exports them to Prometheus as symchan_*
// metrics. Lifecycle events go to the slog.Logger of the [Logger] option,
// and the PEs' goroutines carry the pprof label pe=<id>.
package service
