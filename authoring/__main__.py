from authoring.build import main

main()
