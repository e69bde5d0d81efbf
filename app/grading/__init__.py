"""Grading: handing submissions to the sandboxed grader and recording what comes back.

- `backend`: which grading back end this process runs (embedded or distributed);
- `dispatch`: the embedded back end (an in-process queue feeding the grader);
- `distributed`: the Redis back end (grader workers on other processes or machines);
- `fairness`: each student's submissions in flight, and taking turns between students;
- `waiting`: holding a request (`?wait=`) until its submission is finished;
- `jobs`: our rows in the grader's public contract (`grader.Job`, `grader.Run`);
- `recording`: what the graders return, recorded: a submission's lease state machine.

The rows they move through their states are the submissions domain's (app/submissions)."""
