// Transfers: the task manager for downloads (file and HLS) and uploads (tus and plain HTTP).
// See docs/ARCHITECTURE.md, "Transfers inside".
