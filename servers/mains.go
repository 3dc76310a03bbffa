// Package servers holds the hellobench servers, one command per folder. It
// embeds each server's main.go, which docs/servers.md shows as code: the
// page is generated from the files themselves, so it cannot drift.
package servers

import "embed"

// Mains holds every server's main.go, as NAME/main.go.
//
//go:embed */main.go
var Mains embed.FS
