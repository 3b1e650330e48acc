package service

// forwardAll routes every call through the world's mailboxes, as calls to
// another process's PE travel.
func forwardAll() Option {
	return func(o *options) error {
		o.forwardAll = true
		return nil
	}
}
