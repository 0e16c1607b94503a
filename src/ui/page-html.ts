// The page's one HTML document: it loads only the bundle metalfleet serves (no CDN), and the
// Content-Security-Policy header keeps it that way.
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>metalfleet</title>
<link rel="stylesheet" href="/assets/app.css">
</head>
<body>
<div id="app">loading…</div>
<script src="/assets/app.js"></script>
</body>
</html>
`;

export const PAGE_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";
