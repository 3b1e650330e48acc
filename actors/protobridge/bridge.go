// Package protobridge lets ordinary protoactor-go actors on different PEs
// talk to each other, with symchan's mailboxes as the transport.
//
// Each PE runs one protoactor ActorSystem whose address is Address(pe).
// A PID with another PE's address resolves to a proxy process that encodes
// the message (a protobuf message) and sends it through an actors.Mailbox;
// the receiving PE's bridge delivers it into the target actor's protoactor
// mailbox, with the original sender, so Respond and RequestFuture work
// across PEs unchanged:
//
//	b, _ := protobridge.Start(ctx, pe)
//	if pe.ID() == 1 {
//		b.System().Root.SpawnNamed(props, "echo")
//	}
//	// on PE 0:
//	f := b.System().Root.RequestFuture(b.PID(1, "echo"), msg, time.Second)
//
// Messages must be protobuf messages (proto.Message) whose types are
// linked into the binary (every PE runs the same program). Only user
// messages cross PEs; system messages (Watch, Stop, ...) to another PE's
// actors are dropped and logged.
package protobridge

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/asynkron/protoactor-go/actor"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

const addressPrefix = "symchan-pe-"

// Address is the protoactor address of PE pe's actor system.
func Address(pe int) string { return addressPrefix + strconv.Itoa(pe) }

// peOf parses an Address; ok is false for other addresses.
func peOf(addr string) (int, bool) {
	s, ok := strings.CutPrefix(addr, addressPrefix)
	if !ok {
		return 0, false
	}
	pe, err := strconv.Atoi(s)
	return pe, err == nil && pe >= 0 && strconv.Itoa(pe) == s
}

// Bridge is one PE's end of the bridge.
type Bridge struct {
	pe      *pgas.PE
	sys     *actor.ActorSystem
	mb      *actors.Mailbox
	remotes []*remote
	ctx     context.Context // the PE's lifetime, for sends
	log     *slog.Logger
}

// Start collectively starts the bridge: every PE calls it, with the same
// options (those of actors.NewMailbox). The bridge and its actor system
// stop when the PE's function returns.
func Start(ctx context.Context, pe *pgas.PE, opts ...actors.MailboxOption) (*Bridge, error) {
	mb, err := actors.NewMailbox(ctx, pe, opts...)
	if err != nil {
		return nil, err
	}
	sys := actor.NewActorSystem()
	sys.ProcessRegistry.Address = Address(pe.ID())
	b := &Bridge{pe: pe, sys: sys, mb: mb, log: sys.Logger()}
	b.remotes = make([]*remote, pe.NumPEs())
	for i := range b.remotes {
		b.remotes[i] = &remote{b: b, pe: i}
	}
	sys.ProcessRegistry.RegisterAddressResolver(func(pid *actor.PID) (actor.Process, bool) {
		r, ok := peOf(pid.Address)
		if !ok || r >= len(b.remotes) || r == pe.ID() {
			return nil, false
		}
		return b.remotes[r], true
	})
	ready := make(chan struct{})
	pe.Go(func(ctx context.Context) {
		b.ctx = ctx
		close(ready)
		b.pump(ctx)
		sys.Shutdown()
	})
	<-ready
	return b, nil
}

// System is this PE's protoactor actor system.
func (b *Bridge) System() *actor.ActorSystem { return b.sys }

// PID names the actor called id on PE pe.
func (b *Bridge) PID(pe int, id string) *actor.PID { return actor.NewPID(Address(pe), id) }

// pump delivers messages from other PEs into local actors' mailboxes.
func (b *Bridge) pump(ctx context.Context) {
	for {
		m, err := b.mb.Recv(ctx)
		if err != nil {
			if ctx.Err() == nil {
				b.log.Error("symchan bridge: receive failed", slog.Int("pe", b.pe.ID()), slog.Any("error", err))
			}
			return
		}
		env, err := decodeEnvelope(m.Data)
		if err != nil {
			b.log.Error("symchan bridge: bad envelope", slog.Int("from", m.From), slog.Any("error", err))
			continue
		}
		msg, err := env.message()
		if err != nil {
			b.log.Error("symchan bridge: cannot decode message", slog.Int("from", m.From), slog.Any("error", err))
			continue
		}
		target := b.sys.NewLocalPID(env.target)
		if env.senderAddr != "" || env.senderID != "" {
			b.sys.Root.RequestWithCustomSender(target, msg, actor.NewPID(env.senderAddr, env.senderID))
		} else {
			b.sys.Root.Send(target, msg)
		}
	}
}

// remote is the process standing for every actor of another PE.
type remote struct {
	b  *Bridge
	pe int
}

func (r *remote) SendUserMessage(pid *actor.PID, message interface{}) {
	_, msg, sender := actor.UnwrapEnvelope(message)
	pm, ok := msg.(proto.Message)
	if !ok {
		r.b.log.Error("symchan bridge: only protobuf messages cross PEs; dropped", slog.String("type", fmt.Sprintf("%T", msg)), slog.String("to", pid.String()))
		return
	}
	env := envelope{target: pid.Id, typeName: string(pm.ProtoReflect().Descriptor().FullName())}
	if sender != nil {
		env.senderAddr, env.senderID = sender.Address, sender.Id
	}
	data, err := proto.Marshal(pm)
	if err == nil {
		env.payload = data
		err = r.b.mb.Send(r.b.ctx, r.pe, env.encode())
	}
	if err != nil {
		r.b.log.Error("symchan bridge: send failed", slog.String("to", pid.String()), slog.Any("error", err))
	}
}

func (r *remote) SendSystemMessage(pid *actor.PID, message interface{}) {
	r.b.log.Warn("symchan bridge: system messages do not cross PEs; dropped", slog.String("type", fmt.Sprintf("%T", message)), slog.String("to", pid.String()))
}

func (r *remote) Stop(pid *actor.PID) { r.SendSystemMessage(pid, "stop") }

// message decodes the payload as the named protobuf type.
func (e envelope) message() (proto.Message, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(e.typeName))
	if err != nil {
		return nil, fmt.Errorf("message type %q: %w", e.typeName, err)
	}
	m := mt.New().Interface()
	if err := proto.Unmarshal(e.payload, m); err != nil {
		return nil, err
	}
	return m, nil
}
