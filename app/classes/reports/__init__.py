"""What a teacher reads about a class: the progress grid (`grid`, its cells `grid_cells`, its
densities `density`, a lesson's columns per item `expand`), insight (`insight`), who needs
attention (`attention`), one student's work (`drilldown`, `item_summary`) and the exports
(`export`, `gradebook`). They read; the class's management (members, assignments, due
dates) is app/classes/service.py."""
