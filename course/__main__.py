from course.build import main

main()
