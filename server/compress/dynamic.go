package compress

import (
	"net/http"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// DynamicMinSize is the smallest dynamic response that Responses
// compresses: about one Ethernet packet of payload, below which the
// saving does not shorten the transfer.
const DynamicMinSize = 1400

// Responses returns middleware that compresses responses of at least
// DynamicMinSize bytes with zstd or gzip, whichever the request's
// Accept-Encoding prefers (zstd on a tie), and adds Vary: Accept-Encoding.
// A client that sends no Accept-Encoding, or accepts neither, gets the
// response as the handler wrote it. CPU per response is capped by the
// levels: zstd's fastest and gzip's level 1 take a few milliseconds per
// MiB, far less than producing the answer.
func Responses() (func(http.Handler) http.Handler, error) {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(DynamicMinSize),
		gzhttp.CompressionLevel(gzip.BestSpeed),
		gzhttp.ZstdCompressionLevel(int(zstd.SpeedFastest)),
	)
	if err != nil {
		return nil, err
	}
	return func(h http.Handler) http.Handler { return wrap(h) }, nil
}
