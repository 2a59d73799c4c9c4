// Package bench holds the comparisons of the mergelog receiver with contrib's file_log that
// need heavy dependencies (contrib's stanza and file_storage), kept out of the main module:
// differential and checkpoint-restart tests here, the throughput benchmark in
// cmd/receiverbench.
package bench
