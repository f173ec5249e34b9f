-- POST a new task with the core blocks' values.
wrk.method = "POST"
wrk.body = '{"data": {"paragraph": "The printer is on fire", "category": "red"}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Token " .. (os.getenv("QD_KEY") or "")
