"""The frame of the window (DESIGN §2): `MainWindow`, its menus and toolbar
(`main_actions`), the views it switches between (`main_views`, which broadcasts each
changes record to them), the status line's sync, help and the Welcome. The only room that
may import the others; `app` is the window's entry point."""
