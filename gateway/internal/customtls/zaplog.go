package customtls

import (
	"context"
	"log/slog"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// zapLogger is a zap logger (certmagic's) writing to log: its lines join
// the gateway's own, in its format, under component tls.
func zapLogger(log *slog.Logger) *zap.Logger {
	return zap.New(&slogCore{log: log.With("component", "tls")})
}

// slogCore is a zapcore.Core over a slog.Logger.
type slogCore struct {
	log   *slog.Logger
	attrs []any
}

func zapToSlog(l zapcore.Level) slog.Level {
	switch {
	case l >= zapcore.ErrorLevel:
		return slog.LevelError
	case l == zapcore.WarnLevel:
		return slog.LevelWarn
	case l == zapcore.InfoLevel:
		return slog.LevelInfo
	default:
		return slog.LevelDebug
	}
}

func (c *slogCore) Enabled(l zapcore.Level) bool {
	return c.log.Enabled(context.Background(), zapToSlog(l))
}

func (c *slogCore) With(fields []zapcore.Field) zapcore.Core {
	return &slogCore{log: c.log, attrs: append(append([]any(nil), c.attrs...), fieldAttrs(fields)...)}
}

func (c *slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *slogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	attrs := append(append([]any(nil), c.attrs...), fieldAttrs(fields)...)
	if e.LoggerName != "" {
		attrs = append(attrs, "logger", e.LoggerName)
	}
	c.log.Log(context.Background(), zapToSlog(e.Level), e.Message, attrs...)
	return nil
}

func (c *slogCore) Sync() error { return nil }

// fieldAttrs are zap fields as slog's key-value pairs.
func fieldAttrs(fields []zapcore.Field) []any {
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range fields {
		f.AddTo(enc)
	}
	out := make([]any, 0, 2*len(enc.Fields))
	for k, v := range enc.Fields {
		out = append(out, k, v)
	}
	return out
}
