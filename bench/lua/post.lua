-- An authenticated POST of QD_BODY (JSON) to the URL given to wrk.
wrk.method = "POST"
wrk.body = os.getenv("QD_BODY") or "{}"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Token " .. (os.getenv("QD_KEY") or "")
